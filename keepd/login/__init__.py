"""Installing keepd as a login service (systemd, launchd, XDG autostart) and checking the
machine (doctor)."""
