package diag

import (
	"html"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
)

// The rank-based checks read the proposal of an estimator through this method, which the
// library's estimators have.
var _ interface{ TrainingProposal() string } = (*sbi.NPE)(nil)

// proposalModel is gaussModel trained, as far as the checks can tell, on a proposal: it has
// the TrainingProposal of an NPE after Sequential's second round.
type proposalModel struct {
	gaussModel
	proposal string
}

func (m proposalModel) TrainingProposal() string { return m.proposal }

// TestProposalNote: the rank-based checks of an estimator trained on a proposal say, in their
// text and display, that over the whole prior they test what it was not trained for; their
// verdicts and numbers are those of the same estimator without the mark, and an estimator
// trained on its prior gets no note.
func TestProposalNote(t *testing.T) {
	base := gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}
	const proposal = `Sequential (method "truncated proposals") drew the parameters of round 2 from the truncated prior near one observation`
	marked := proposalModel{gaussModel: base, proposal: proposal}
	theta, x := base.simulate(3, 60)
	rc := RankConfig{Samples: 19, Seed: 1}
	type shown interface {
		String() string
		MIMEBundle() map[string]any
	}
	checks := []struct {
		name string
		run  func(est sbi.Amortized) (shown, string) // the result and its verdict (or numbers)
	}{
		{"SBC", func(est sbi.Amortized) (shown, string) {
			r := MustSBC(est, theta, x, rc)
			return r, strings.Join(strings.Fields(strings.Split(r.String(), "note:")[0]), " ")
		}},
		{"SBCECDF", func(est sbi.Amortized) (shown, string) {
			r, err := SBCECDF(MustSBC(est, theta, x, rc), 0)
			if err != nil {
				t.Fatal(err)
			}
			return r, r.Verdict()
		}},
		{"RankCoverage", func(est sbi.Amortized) (shown, string) {
			r := MustRankCoverage(est, theta, x, rc)
			return r, r.Verdict()
		}},
		{"GridCoverage", func(est sbi.Amortized) (shown, string) {
			r, err := GridCoverage(est, theta, x, GridConfig{Lower: []float64{-4, -4}, Upper: []float64{4, 4}, Points: 20})
			if err != nil {
				t.Fatal(err)
			}
			return r, r.Verdict()
		}},
		{"TARP", func(est sbi.Amortized) (shown, string) {
			r := MustTARP(est, theta, x, rc)
			return r, strings.Split(r.String(), "\n")[0]
		}},
		{"MarginalCoverage", func(est sbi.Amortized) (shown, string) {
			r := MustMarginalCoverage(est, theta, x, rc)
			return r, strings.Split(r.String(), "note:")[0]
		}},
		{"NewReport", func(est sbi.Amortized) (shown, string) {
			r := MustNewReport(est, theta, x, ReportConfig{Samples: 19, Seed: 1})
			return r, r.Verdict()
		}},
	}
	for _, c := range checks {
		plain, plainVerdict := c.run(base)
		got, verdict := c.run(marked)
		if verdict != plainVerdict {
			t.Errorf("%s: verdict %q, want that of the unmarked estimator, %q", c.name, verdict, plainVerdict)
		}
		text := got.String()
		htm, _ := got.MIMEBundle()["text/html"].(string)
		for _, want := range []string{"trained on a proposal, not on its prior", "drew the parameters of round 2", "tests what it was not trained for", "tutorial 05", "or the last round's proposal", "LC2ST", "NewReport with an Observation"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: text lacks %q:\n%s", c.name, want, text)
			}
			if !strings.Contains(htm, html.EscapeString(want)) {
				t.Errorf("%s: display lacks %q:\n%s", c.name, want, htm)
			}
		}
		if s := plain.String(); strings.Contains(s, "proposal") {
			t.Errorf("%s: an estimator trained on its prior got a note:\n%s", c.name, s)
		}
	}
}

// TestProposalNoteAtObservation: the row of a Report that has checks at the observation
// already suggests LC2ST but not a Report with an Observation.
func TestProposalNoteAtObservation(t *testing.T) {
	base := gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}
	marked := proposalModel{gaussModel: base, proposal: "Sequential drew the parameters of round 2 near one observation"}
	theta, x := base.simulate(3, 60)
	r := MustNewReport(marked, theta, x, ReportConfig{Samples: 19, Seed: 1, Observation: rowCopy(x, 0)})
	text := r.String()
	if !strings.Contains(text, "trained on a proposal, not on its prior") || !strings.Contains(text, "(LC2ST)") {
		t.Errorf("the report lacks the note or its suggestion of LC2ST:\n%s", text)
	}
	if strings.Contains(text, "NewReport with an Observation") {
		t.Errorf("a report with an Observation suggests one:\n%s", text)
	}
}
