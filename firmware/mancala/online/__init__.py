"""Online games between boards (and the page) through an MQTT 3.1.1 broker (docs/ONLINE.md).

protocol.py: the wire format, the signatures and the receive rules (pure);
mqtt.py: a small non-blocking MQTT client driven by the board's loop;
link.py: the network link (Wi-Fi on a chip, a fake on the PC);
session.py: one online game over the client (pairing, moves, presence, resume).
"""
