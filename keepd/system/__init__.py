"""What keepd asks of the operating system: session files found and opened safely, files
replaced atomically, whether a process is alive."""
