package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestPairedDifference(t *testing.T) {
	tests := []struct {
		name             string
		base, challenger []float64
		mean, se         float64
		wantErr          bool
	}{
		// d = (-0.1, -0.2, -0.3): mean -0.2, sd 0.1, s.e. 0.1/√3.
		{"lower", []float64{0.7, 0.8, 0.9}, []float64{0.6, 0.6, 0.6}, -0.2, 0.1 / math.Sqrt(3), false},
		// d = (+0.1, -0.1): mean 0, sd √0.02, s.e. 0.1.
		{"mixed", []float64{0.6, 0.7}, []float64{0.7, 0.6}, 0, 0.1, false},
		{"lengths differ", []float64{0.6, 0.7}, []float64{0.6}, 0, 0, true},
		{"one observation", []float64{0.6}, []float64{0.5}, 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := pairedDifference(tc.base, tc.challenger)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if math.Abs(d.Mean-tc.mean) > 1e-12 || math.Abs(d.SE-tc.se) > 1e-12 || d.N != len(tc.base) {
				t.Errorf("got %+v, want mean %g, s.e. %g, n %d", d, tc.mean, tc.se, len(tc.base))
			}
		})
	}
}

func TestClaimHolds(t *testing.T) {
	tests := []struct {
		strict bool
		mean   float64
		want   bool
	}{
		{true, -0.01, true},
		{true, 0, false}, // a tie does not beat
		{true, 0.01, false},
		{false, -0.01, true},
		{false, 0, true}, // a tie is at least as good
		{false, 0.01, false},
	}
	for _, tc := range tests {
		if got := (claim{Strict: tc.strict}).holds(difference{Mean: tc.mean, SE: 0.01, N: 10}); got != tc.want {
			t.Errorf("strict %v, mean difference %g: holds %v, want %v", tc.strict, tc.mean, got, tc.want)
		}
	}
}

func TestNoise(t *testing.T) {
	tests := []struct {
		mean, se float64
		n        int
		beyond   bool
	}{
		{-0.05, 0.01, 10, true},
		{0.05, 0.01, 10, true},
		{-0.015, 0.01, 10, false},
		{0.022, 0.01, 10, false}, // 2.2 s.e. < t(9) quantile 2.262
		{0.023, 0.01, 10, true},  // 2.3 s.e. > 2.262
		{-0.029, 0.01, 3, false}, // 2.9 s.e. < t(2) quantile 4.303
		{-0.044, 0.01, 3, true},
	}
	for _, tc := range tests {
		got := strings.HasPrefix(noise(difference{Mean: tc.mean, SE: tc.se, N: tc.n}), "beyond")
		if got != tc.beyond {
			t.Errorf("d = %g ± %g over %d: beyond noise %v, want %v", tc.mean, tc.se, tc.n, got, tc.beyond)
		}
	}
}

func TestPrintComparisons(t *testing.T) {
	tests := []struct {
		name    string
		results map[string][]float64
		ok      bool
		lines   []string // substrings the output must hold
		absent  []string // substrings it must not hold
	}{
		{
			name:    "tsnpe beats npe",
			results: map[string][]float64{"npe:slcp": {0.9, 0.9}, "tsnpe:slcp": {0.8, 0.85}},
			ok:      true,
			lines:   []string{"tsnpe:slcp beats npe:slcp | -0.075", "| holds |"},
		},
		{
			name:    "tsnpe ties npe",
			results: map[string][]float64{"npe:two_moons": {0.6, 0.7}, "tsnpe:two_moons": {0.7, 0.6}},
			ok:      false,
			lines:   []string{"| FAILS |", "within noise"},
		},
		{
			name:    "nrec ties nre",
			results: map[string][]float64{"nre:two_moons": {0.6, 0.7}, "nrec:two_moons": {0.7, 0.6}},
			ok:      true,
			lines:   []string{"nrec:two_moons at least as good as nre:two_moons", "| holds |"},
		},
		{
			name:    "nrec worse than nre",
			results: map[string][]float64{"nre:two_moons": {0.6, 0.6}, "nrec:two_moons": {0.7, 0.8}},
			ok:      false,
			lines:   []string{"| FAILS |"},
		},
		{
			name:    "different observations",
			results: map[string][]float64{"nre:two_moons": {0.6, 0.6, 0.6}, "nrec:two_moons": {0.5, 0.5}},
			ok:      false,
			lines:   []string{"inconclusive"},
		},
		{
			name:    "one row of a pair",
			results: map[string][]float64{"tsnpe:slcp": {0.8, 0.8}},
			ok:      true,
			absent:  []string{"beats"},
		},
		{
			name:    "nle against sbibm is printed, not asserted",
			results: map[string][]float64{"nle:two_moons": {0.80, 0.82}},
			ok:      true,
			lines:   []string{"nle:two_moons vs sbibm's 0.71 | +0.100", "worse"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if ok := printComparisons(&b, tc.results); ok != tc.ok {
				t.Errorf("ok %v, want %v; output:\n%s", ok, tc.ok, b.String())
			}
			for _, s := range tc.lines {
				if !strings.Contains(b.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, b.String())
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(b.String(), s) {
					t.Errorf("output holds %q:\n%s", s, b.String())
				}
			}
		})
	}
}

func TestCheckRange(t *testing.T) {
	tests := []struct {
		first, obs int
		tr         training
		wantErr    string
	}{
		{1, 10, training{}, ""},
		{7, 10, training{}, ""},
		{3, 3, training{patience: 100}, ""},
		{1, 10, training{batch: 10000, epochs: 20000}, ""},
		{1, 10, training{batch: 2}, ""},
		{0, 10, training{}, "-first 0"},
		{7, 6, training{}, "-first 7 -obs 6"},
		{1, 11, training{}, "-obs 11"},
		{1, 10, training{patience: -1}, "-patience -1"},
		{1, 10, training{batch: -200}, "-batch -200"},
		{1, 10, training{batch: 1}, "-batch 1"},
		{1, 10, training{epochs: -1}, "-epochs -1"},
	}
	for _, tc := range tests {
		err := checkRange(tc.first, tc.obs, tc.tr)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("checkRange(%d, %d, %+v) = %v, want nil", tc.first, tc.obs, tc.tr, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("checkRange(%d, %d, %+v) = %v, want an error naming %q", tc.first, tc.obs, tc.tr, err, tc.wantErr)
		}
	}
}

func TestTrainingLabel(t *testing.T) {
	tests := []struct {
		tr   training
		want string
	}{
		{training{}, ""},
		{training{patience: 100}, ", patience 100"},
		{training{batch: 10000}, ", batch 10000"},
		{training{patience: 100, batch: 10000, epochs: 20000}, ", patience 100, batch 10000, at most 20000 epochs"},
	}
	for _, tc := range tests {
		if got := tc.tr.label(); got != tc.want {
			t.Errorf("%+v.label() = %q, want %q", tc.tr, got, tc.want)
		}
		cfg := tc.tr.config(7)
		if cfg.Seed != 7 || cfg.Patience != tc.tr.patience || cfg.BatchSize != tc.tr.batch || cfg.Epochs != tc.tr.epochs {
			t.Errorf("%+v.config(7) = %+v, want the seed and the flags' values", tc.tr, cfg)
		}
	}
}

// TestCheckRows: the rows and the arguments are checked before the first row runs (each row
// takes minutes): a row that is not method:task, an unknown method or task, and arguments
// after the flags (rows are given with -rows) are refused with an error naming them.
func TestCheckRows(t *testing.T) {
	tests := []struct {
		rows    string
		args    []string
		wantErr string
	}{
		{"npe:two_moons,tsnpe:slcp,nre:two_moons,nrec:two_moons,nle:gaussian_linear", nil, ""},
		{"npe:two_moons,npe:two_moon", nil, `"two_moon"`},
		{"npe:two_moons,abc:two_moons", nil, `method "abc"`},
		{"npe:two_moons,two_moons", nil, `row "two_moons"`},
		{"npe:two_moons", []string{"nre:two_moons"}, `unexpected arguments ["nre:two_moons"]`},
	}
	for _, tc := range tests {
		err := checkRows(tc.rows, tc.args)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("checkRows(%q, %q) = %v, want nil", tc.rows, tc.args, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("checkRows(%q, %q) = %v, want an error naming %q", tc.rows, tc.args, err, tc.wantErr)
		}
	}
}

// TestCheckSizes: -sims and -samples that are not positive are refused before the first row
// runs, with an error naming the flag, its value and what is expected.
func TestCheckSizes(t *testing.T) {
	tests := []struct {
		sims, samples int
		wantErr       string
	}{
		{10000, 10000, ""},
		{1, 1, ""},
		{0, 10000, "-sims 0, expected"},
		{-5, 10000, "-sims -5, expected"},
		{10000, 0, "-samples 0, expected"},
		{10000, -1, "-samples -1, expected"},
	}
	for _, tc := range tests {
		err := checkSizes(tc.sims, tc.samples)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("checkSizes(%d, %d) = %v, want nil", tc.sims, tc.samples, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("checkSizes(%d, %d) = %v, want an error naming %q", tc.sims, tc.samples, err, tc.wantErr)
		}
	}
}
