"""Feature modules: each imports only the shared modules (``handlers.telegram.shared``), the
renderers and the ruleset UIs, never another feature; ``handlers.telegram.app`` wires them."""
