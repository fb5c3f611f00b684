package nbtest

import "os/exec"

// Chromium returns the path of a headless-capable Chromium on PATH (Debian's chromium), or ""
// when there is none. Tests that check pages in a browser use it with ChromiumFlags.
func Chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// ChromiumFlags are the flags of a headless Chromium for tests: no sandbox and no GPU (they
// are missing in containers), nothing contacted on its own (no QUIC, background networking,
// component updates or sync, no first-run pages), shared memory in /tmp, and the fresh profile
// directory profile.
func ChromiumFlags(profile string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + profile}
}
