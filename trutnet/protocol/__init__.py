"""The table protocol: messages, the signed log, the table state machine (sans-I/O).

Empty until the table-protocol issue; it will depend on ``trutnet.engine`` and
``trutnet.crypto`` only.
"""
