// Package omit lists the packages of the Go standard library that the symbol tables leave
// out, each group with the reason: the generator skips them, and a cell that imports one is
// told why. A package left out can still be imported by a cell of a notebook whose worker can
// be extended (package interp/extend links it into a new worker); only the default worker
// lacks it.
package omit

import "regexp"

// A Group is a set of standard-library packages, matched by a regular expression on the
// import path, and why they are left out.
type Group struct {
	Pattern *regexp.Regexp
	Why     string
}

// Groups are the packages left out. They are chosen so that no notebook, tutorial or test
// imports one, and a scientist's cell has little reason to: the largest tables (debug/*
// alone was 40% of them) belong to tools, servers and cryptography.
var Groups = []Group{
	{regexp.MustCompile(`(^|/)internal(/|$)|(^|/)vendor/|^cmd/`),
		"it is internal to the Go distribution"},
	{regexp.MustCompile(`^unsafe$|^syscall|^runtime/(cgo|race|msan|asan)$|^plugin$|^simd`),
		"it gives unrestricted access to memory or the system, or needs cgo or a special build"},
	{regexp.MustCompile(`^debug/`),
		"it reads executables and debugging information (ELF, DWARF, PE, Mach-O, build info), the work of tools"},
	{regexp.MustCompile(`^go/`),
		"it parses, formats and type-checks Go source, the work of the interpreter and of tools"},
	{regexp.MustCompile(`^crypto/(aes|cipher|des|dsa|ecdh|ecdsa|ed25519|elliptic|fips140|hkdf|hpke|mlkem|pbkdf2|rc4|rsa|subtle|tls|x509)(/|$)`),
		"it encrypts, signs, or handles keys and certificates; the hashes (crypto/sha256, crypto/md5, …), crypto/hmac and crypto/rand are offered"},
	{regexp.MustCompile(`^net/http/(cgi|fcgi|httptest|httputil|pprof)$|^net/(rpc|smtp|mail)(/|$)|^expvar$|^log/syslog$`),
		"it serves, tests or debugs network services; net, net/http, net/url and net/netip are offered"},
	{regexp.MustCompile(`^testing/|^runtime/coverage$`),
		"it serves `go test` and coverage builds; package testing is offered (testing.Benchmark)"},
	{regexp.MustCompile(`^time/tzdata$|^embed$`),
		"it has no use in a cell (time/tzdata only embeds the time-zone database in a binary; embed needs //go:embed)"},
}

// Why returns why the standard-library package path is left out of the tables, or "" when
// it is not.
func Why(path string) string {
	for _, g := range Groups {
		if g.Pattern.MatchString(path) {
			return g.Why
		}
	}
	return ""
}
