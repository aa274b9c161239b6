"""Mail in and out: the inbound pipeline, outgoing messages, delivery, listeners."""
