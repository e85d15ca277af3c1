"""Continuous mode's rules: what to sample next (freshness), the schedule, health, status, retention."""
