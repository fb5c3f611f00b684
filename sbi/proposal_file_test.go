package sbi

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestTrainingProposalFiles checks format 4 against format 3, which is format 4 without
// "training_proposal": every file of testdata/v3 (written before the proposal was stored)
// loads with no proposal, gives the log-densities of the same estimator's file of format 4
// to the bit, and saves again to the bytes that file saves again to. A proposal in a header
// of format 4 is restored and saved again; one in a header of format 3, which stores none, is
// refused as damaged.
func TestTrainingProposalFiles(t *testing.T) {
	_, eval := savedPairs()
	for _, c := range savedCases {
		t.Run(c.name, func(t *testing.T) {
			old, err := Load(bytes.NewReader(savedFile(t, 3, c.name)))
			if err != nil {
				t.Fatal(err)
			}
			current, err := Load(bytes.NewReader(savedFile(t, 4, c.name)))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range []Estimator{old, current} {
				if p := e.(savable).core().TrainingProposal(); p != "" {
					t.Errorf("TrainingProposal %q of an estimator trained on the prior, want \"\"", p)
				}
			}
			a, b := asSaved(t, old).logProb(eval[0], eval[1]), asSaved(t, current).logProb(eval[0], eval[1])
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("pair %d: log-density %v from the file of format 3, %v from that of format 4", i, a[i], b[i])
				}
			}
			var again, again4 bytes.Buffer
			if err := old.Save(&again); err != nil {
				t.Fatal(err)
			}
			if err := current.Save(&again4); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), again4.Bytes()) {
				t.Errorf("the file of format 3 saved again: %d bytes, not those of the file of format 4 saved again (%d)", again.Len(), again4.Len())
			}
		})
	}
	const proposal = "Sequential (method \"truncated\") drew the parameters of rounds 2 to 3 from the truncated prior near one observation"
	marked := forge(t, savedFile(t, 4, "npe-nsf"), func(h map[string]any) { h["training_proposal"] = proposal })
	e, err := Load(bytes.NewReader(marked))
	if err != nil {
		t.Fatal(err)
	}
	if p := e.(*NPE).TrainingProposal(); p != proposal {
		t.Errorf("format 4 with a proposal: TrainingProposal %q, want %q", p, proposal)
	}
	var again bytes.Buffer
	if err := e.Save(&again); err != nil {
		t.Fatal(err)
	}
	if back, err := Load(&again); err != nil || back.(*NPE).TrainingProposal() != proposal {
		t.Errorf("format 4 with a proposal, saved again and loaded: %v, want the proposal %q", err, proposal)
	}
	v3 := append([]byte(nil), marked...)
	binary.LittleEndian.PutUint32(v3[8:], 3)
	v3 = forge(t, v3, func(map[string]any) {})
	if _, err := Load(bytes.NewReader(v3)); err == nil || !strings.Contains(err.Error(), "damaged header") || !strings.Contains(err.Error(), "training proposal") {
		t.Errorf("format 3 with a proposal: error %v, expected one saying the header is damaged", err)
	}
}
