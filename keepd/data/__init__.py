"""keepd's packaged files, the example session and the icon, and where to find them."""
