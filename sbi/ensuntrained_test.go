package sbi

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEnsembleUntrainedMember checks the error of an ensemble one of whose members is not
// trained (its training failed, or stopped before an epoch, while the others finished): every
// use must name the member and wrap ErrUntrained, so that the user knows which training to
// repeat rather than being told to call Train on an ensemble that was trained.
func TestEnsembleUntrainedMember(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	prior, theta, x := gaussianPairs(rng, 100)
	npes := []*NPE{NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1}), NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1})}
	nres := []*NRE{NewNRE(prior, NREConfig{Hidden: []int{4}}), NewNRE(prior, NREConfig{Hidden: []int{4}})}
	ne, re := MustNewNPEEnsemble(npes...), MustNewNREEnsemble(nres...)
	for _, e := range []Estimator{npes[0], nres[0]} {
		if _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); err != nil {
			t.Fatal(err)
		}
	}
	catch := func(f func()) (err error) {
		defer func() {
			r := recover()
			if e, ok := r.(error); ok {
				err = e
			} else if r != nil {
				err = fmt.Errorf("%v", r)
			}
		}()
		f()
		return nil
	}
	for name, e := range map[string]Estimator{"NPE ensemble": ne, "NRE ensemble": re} {
		for what, f := range map[string]func(){
			"LogProbPairs": func() { e.LogProbPairs(theta, x) },
			"Posterior":    func() { e.Posterior(x.RawRowView(0)).LogProb(theta) },
		} {
			err := catch(f)
			if err == nil || !errors.Is(err, ErrUntrained) || !strings.Contains(err.Error(), "member 1") {
				t.Errorf("%s.%s: %v, expected an error wrapping ErrUntrained that names member 1", name, what, err)
			}
		}
	}
}
