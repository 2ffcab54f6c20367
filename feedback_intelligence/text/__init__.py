"""Text as it enters the domain: one normalisation step for client and model text, and the
confusable-folded form that injection matching and prompt fencing compare on."""
