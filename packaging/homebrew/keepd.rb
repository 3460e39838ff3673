# Homebrew formula for keepd. packaging/fill.py fills in the version, the sdist's address and
# its SHA-256; `brew update-python-resources keepd` then adds one resource per dependency.
class Keepd < Formula
  include Language::Python::Virtualenv

  desc "Tells you where a long Claude Code chat can be summarized"
  homepage "@HOMEPAGE@"
  url "@SDIST_URL@"
  version "@VERSION@"
  sha256 "@SHA256@"
  license "MIT"

  depends_on "python@3.11"

  def install
    virtualenv_install_with_resources
    # The login service's files, filled in by keepd itself for the linked command.
    system libexec/"bin/python", "-m", "keepd", "service", "files", buildpath/"units",
           "--manager", "launchd", "--command", opt_bin/"keepd"
    (share/"keepd/launchd").install buildpath/"units/org.keepd.daemon.plist"
    if OS.linux?
      system libexec/"bin/python", "-m", "keepd", "service", "files", buildpath/"units",
             "--manager", "systemd", "--command", opt_bin/"keepd"
      (lib/"systemd/user").install buildpath/"units/keepd.service", buildpath/"units/keepd.socket"
    end
  end

  service do
    run [opt_bin/"keepd", "run"]
    keep_alive successful_exit: false
    process_type :background
    log_path var/"log/keepd.log"
    error_log_path var/"log/keepd.log"
  end

  def caveats
    <<~EOS
      Start keepd at every login with:
        keepd service install
      or `brew services start keepd`, one or the other, not both.
      `keepd doctor` checks the rest.
    EOS
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/keepd --version")
    system bin/"keepd", "service", "install", "--dry-run"
  end
end
