package sbi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// TestConstantThetaFiles checks format 5 against format 4, which is format 5 without
// "constant_theta": every file of testdata/v4 loads, gives the log-densities of the same
// estimator's file of format 5 to the bit, and saves again to a file of format 5 that says
// nothing of the constant columns (they are unknown), where the file of format 5 records
// that there are none. A record in a header of format 4, which stores none, or one naming a
// column out of range or out of order, is refused as damaged.
func TestConstantThetaFiles(t *testing.T) {
	_, eval := savedPairs()
	for _, c := range savedCases {
		t.Run(c.name, func(t *testing.T) {
			old, err := Load(bytes.NewReader(savedFile(t, 4, c.name)))
			if err != nil {
				t.Fatal(err)
			}
			current, err := Load(bytes.NewReader(savedFile(t, 5, c.name)))
			if err != nil {
				t.Fatal(err)
			}
			a, b := asSaved(t, old).logProb(eval[0], eval[1]), asSaved(t, current).logProb(eval[0], eval[1])
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("pair %d: log-density %v from the file of format 4, %v from that of format 5", i, a[i], b[i])
				}
			}
			for _, f := range []struct {
				e      Estimator
				record string // the header's constant_theta, "" for none
			}{{old, ""}, {current, "[]"}} {
				var again bytes.Buffer
				if err := f.e.Save(&again); err != nil {
					t.Fatal(err)
				}
				version, h := binary.LittleEndian.Uint32(again.Bytes()[8:]), headerOf(t, again.Bytes())
				if got := string(h["constant_theta"]); version != 5 || got != f.record {
					t.Errorf("saved again: format %d, constant_theta %q; expected format 5, constant_theta %q", version, got, f.record)
				}
			}
		})
	}
	for _, tc := range []struct {
		name    string
		version uint32
		record  any
	}{
		{"in format 4", 4, []int{}},
		{"beyond θ", 5, []int{2}},
		{"negative", 5, []int{-1}},
		{"out of order", 5, []int{1, 0}},
		{"repeated", 5, []int{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), savedFile(t, 5, "npe-nsf")...)
			binary.LittleEndian.PutUint32(b[8:], tc.version)
			b = forge(t, b, func(h map[string]any) { h["constant_theta"] = tc.record })
			if _, err := Load(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "damaged header") || !strings.Contains(err.Error(), "constant columns") {
				t.Errorf("error %v, expected one saying the header's constant columns are damaged", err)
			}
		})
	}
}

// headerOf returns the fields of the JSON header of an estimator file.
func headerOf(t *testing.T, file []byte) map[string]json.RawMessage {
	t.Helper()
	var h map[string]json.RawMessage
	if err := json.Unmarshal(file[16:headerEnd(file)], &h); err != nil {
		t.Fatal(err)
	}
	return h
}
