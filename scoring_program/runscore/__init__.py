"""runscore: validate and score runs of IR and QA evaluation campaigns, exactly as the official tools do."""

__version__ = "0.1.0"
