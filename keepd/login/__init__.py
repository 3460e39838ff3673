"""Installing keepd as a login service (systemd, launchd) and checking the machine (doctor)."""
