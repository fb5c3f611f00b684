package certify

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// TestSaveVersionAndLoadRefusals: a certificate without trials or NaN saves as version 2, one
// whose conformal calibration θ holds NaN as version 3 (a version-2 reader would read its null
// as 0); Load refuses trials in a version-2 file and observation vectors that are not one per
// observation, saying what it expected.
func TestSaveVersionAndLoadRefusals(t *testing.T) {
	prior := gaussPrior()
	cert, err := Certify(prior, gaussSimulator{}, nil, Config{Simulations: 2000, TestSimulations: 500, CheckSimulations: 300,
		New:   func() sbi.Estimator { return sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8}) },
		Train: sbi.TrainConfig{Epochs: 2}, Remedies: []Remedy{RemedyConformal},
		Target: Target{Tolerance: 0.01}, Samples: 100, SBCSamples: -1, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	if cert.Conformal == nil {
		t.Fatalf("the conformal remedy was not chosen: %s", cert)
	}
	plain := saveJSON(t, cert)
	if v := plain["version"]; v != float64(plainVersion) {
		t.Errorf("a certificate without trials or NaN saved as version %v, want %d", v, plainVersion)
	}

	nanTheta := *cert
	nanTheta.calTheta = mat.DenseCopyOf(cert.calTheta)
	nanTheta.calTheta.Set(0, 0, math.NaN())
	if v := saveJSON(t, &nanTheta)["version"]; v != float64(trialsVersion) {
		t.Errorf("NaN in the conformal calibration θ saved as version %v, want %d", v, trialsVersion)
	}

	for _, c := range []struct {
		name string
		edit func(map[string]any)
		want []string
	}{
		{"trials in version 2", func(f map[string]any) {
			f["trials"], f["trials_sampler"] = 4, map[string]any{}
		}, []string{"version 2 has trials", "version 3 added"}},
		{"observation vectors without observations", func(f map[string]any) {
			f["version"], f["observation_x"] = trialsVersion, [][]any{{1.0, nil}}
		}, []string{"1 observation vectors for 0 observations", "expected one each"}},
	} {
		f := saveJSON(t, cert)
		c.edit(f)
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Load(bytes.NewReader(b))
		if err == nil {
			t.Errorf("%s: loaded, want an error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}

// saveJSON saves cert and returns its file as a JSON object.
func saveJSON(t *testing.T, cert *Certificate) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := cert.Save(&buf); err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	return f
}
