"""DyNet layers shared by the model families (the modules import DyNet; this one does not)."""

CHAR_LSTM_SIZE = 100  # the papers' character bi-LSTM output size, both directions
