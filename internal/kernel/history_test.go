package kernel

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHistoryOutputCut: an output longer than maxHistoryOutput is kept as its beginning, cut
// at a character boundary, with a note saying how much was cut, maxHistoryOutput bytes in all.
func TestHistoryOutputCut(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  string
		cut  bool
	}{
		{"short", "42", false},
		{"exactly the bound", strings.Repeat("a", maxHistoryOutput), false},
		{"one byte more", strings.Repeat("a", maxHistoryOutput+1), true},
		{"multi-byte characters", strings.Repeat("é", maxHistoryOutput), true},
	} {
		got := cutHistoryOutput(tc.out)
		switch {
		case !tc.cut && got != tc.out:
			t.Errorf("%s: cut to %d bytes, want it whole (%d)", tc.name, len(got), len(tc.out))
		case tc.cut && (len(got) > maxHistoryOutput || !strings.Contains(got, "bytes more were cut]") || !strings.HasPrefix(tc.out, got[:strings.LastIndex(got, "\n[")])):
			t.Errorf("%s: %d bytes ending %q, want at most %d, a beginning of the output and a note", tc.name, len(got), got[max(len(got)-100, 0):], maxHistoryOutput)
		case !utf8.ValidString(got):
			t.Errorf("%s: cut inside a character", tc.name)
		}
	}
}

// TestHistoryBounds: past maxHistoryOutputs the oldest outputs are dropped and their inputs
// kept; past maxHistoryInputs the oldest entries go whole; history_request answers for what is
// kept, marking a dropped output.
func TestHistoryBounds(t *testing.T) {
	out := strings.Repeat("o", maxHistoryOutput) // shared by the entries: the test holds 1 MiB
	k := &Kernel{}
	n := maxHistoryOutputs/maxHistoryOutput + 3
	for i := 1; i <= n; i++ {
		k.history.add(i, "cell", out)
	}
	if k.history.outputBytes > maxHistoryOutputs || len(k.history.entries) != n {
		t.Fatalf("%d entries with %d bytes of outputs, want %d entries and at most %d bytes", len(k.history.entries), k.history.outputBytes, n, maxHistoryOutputs)
	}
	reply := func(content string) []any {
		t.Helper()
		return k.historyReply(&Message{Content: json.RawMessage(content)})["history"].([]any)
	}
	all := reply(`{"hist_access_type": "range", "start": 1, "output": true}`)
	if len(all) != n {
		t.Fatalf("range 1-: %d entries, want %d", len(all), n)
	}
	for i, e := range all {
		pair := e.([]any)[2].([]any)
		wantOut := any(out)
		if i < 3 {
			wantOut = droppedOutput
		}
		if pair[0] != "cell" || pair[1] != wantOut {
			t.Errorf("line %d: input %q, output of %d bytes; want the input and %.40q", i+1, pair[0], len(pair[1].(string)), wantOut)
		}
	}

	// inputs: the oldest entries go whole, and line numbers still select the ones kept
	big := strings.Repeat("i", 16<<20)
	for i := n + 1; i <= n+5; i++ {
		k.history.add(i, big, "")
	}
	if k.history.inputBytes > maxHistoryInputs {
		t.Errorf("%d bytes of inputs kept, want at most %d", k.history.inputBytes, maxHistoryInputs)
	}
	kept := reply(`{"hist_access_type": "range", "start": 1}`)
	if len(kept) == 0 || kept[0].([]any)[1] == 1 || kept[len(kept)-1].([]any)[1] != n+5 {
		t.Fatalf("after large inputs: lines %v…, want the oldest gone and the newest %d kept", kept[0].([]any)[1], n+5)
	}
	if r := reply(`{"hist_access_type": "range", "start": 1, "stop": 2}`); len(r) != 0 {
		t.Errorf("range of a dropped line: %v, want none", r)
	}
	if r := reply(`{"hist_access_type": "tail", "n": 1}`); len(r) != 1 || r[0].([]any)[1] != n+5 {
		t.Errorf("tail 1: %v, want line %d", r, n+5)
	}
}
