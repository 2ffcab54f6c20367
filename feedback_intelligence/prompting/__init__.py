"""Above the gate and the backends: the one road from a prompt to a model."""
