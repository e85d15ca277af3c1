"""From analyses to what is published: aggregation, artifact files, changes, member figures, alerts."""
