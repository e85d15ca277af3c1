"""The matching cascade and its values: readings, questions, results, verification, events, evaluation."""
