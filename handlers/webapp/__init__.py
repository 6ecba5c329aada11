"""The Mini App: order pages opened from a ``web_app`` button in the private chat
(docs/bot.md "The order page").

- :mod:`.initdata`: Telegram's ``initData`` validated as Telegram documents;
- :mod:`.api`: one framework-free handler ``handle(method, path, headers, body)`` for the
  static page and the JSON API, used by the Lambda entry (:mod:`.lambda_entry`) and the local
  server (:mod:`.server`);
- :mod:`.views`: what the reader may see (own sheet, legal choices, public state, exact odds
  from the engine; never another seat's order);
- :mod:`.seal`: a seal through the same use case as the chat's buttons and typed orders;
- ``static/``: the page (HTML, CSS, plain JS modules; no build step).

Nothing here is imported by the webhook (its cold path: ``tests/serverless``).
"""
