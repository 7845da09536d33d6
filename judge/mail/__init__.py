"""Mail in and out: reading messages, the IMAP poller, the SMTP receiver, the sender."""
