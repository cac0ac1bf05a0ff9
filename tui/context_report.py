"""The /context breakdown moved to the core (agent/slash/context_report.py); its names, here
for tui/lifecycle.py until the session runtime takes the meter."""

from agent.slash.context_report import ContextGauge, ContextReport, context_report, gauge

__all__ = ["ContextGauge", "ContextReport", "context_report", "gauge"]
