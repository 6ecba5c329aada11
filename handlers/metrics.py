"""CloudWatch metrics for the alarms in ``template.yaml``, with no import cost and no API call."""

from __future__ import annotations

import json
import logging
import os
import time

log = logging.getLogger("sekundant.metrics")
NAMESPACE = "Sekundant"  # template.yaml sets SEKUNDANT_METRICS_NAMESPACE per stack


def metric(
    name: str, value: float, unit: str = "Count", dimensions: dict[str, str] | None = None
) -> None:
    """One CloudWatch metric in the embedded metric format (a JSON log line that CloudWatch
    Logs turns into a metric: no API call); namespace ``Sekundant`` (``template.yaml``'s
    alarms). ``dimensions``: e.g. the outcome of an update; the metric is also published
    without them (the alarms' dimensionless series). Outside Lambda it is only logged."""
    if not os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        log.debug("metric %s = %s", name, value)
        return
    print(
        json.dumps(
            {
                "_aws": {
                    "Timestamp": int(time.time() * 1000),
                    "CloudWatchMetrics": [
                        {
                            "Namespace": os.environ.get("SEKUNDANT_METRICS_NAMESPACE", NAMESPACE),
                            "Dimensions": [[], sorted(dimensions)] if dimensions else [[]],
                            "Metrics": [{"Name": name, "Unit": unit}],
                        }
                    ],
                },
                name: value,
                **(dimensions or {}),
            }
        ),
        flush=True,
    )
