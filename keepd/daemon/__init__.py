"""The daemon: follows every active session, notifies at the right moment, answers on a socket."""
