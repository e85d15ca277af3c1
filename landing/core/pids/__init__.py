"""Pids: DOI forms and the candidate DOIs a string holds."""
