"""keepd's operations: one object the command line and the socket both call, computed in this
process or asked of the running daemon over the socket's protocol."""
