package sbi

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// This file holds how estimators and posteriors show themselves: String is one line, and
// MIMEBundle the same facts as a small HTML table, so that an estimator or a posterior as the
// last expression of a notebook cell displays as a summary, not as a dump of its fields.

// String says what the NPE is: its flow, its dimensions and whether it is trained.
func (e *NPE) String() string {
	c := e.cfg
	return fmt.Sprintf("%s: %d transforms of %d×%d hidden units, %s", e.label, c.Transforms, c.Layers, c.Hidden, e.state())
}

// MIMEBundle shows the summary as HTML and text.
func (e *NPE) MIMEBundle() map[string]any { return summaryBundle(e.label, e.String()) }

// String says what the NRE is: its classifier, its dimensions and whether it is trained.
func (e *NRE) String() string {
	return fmt.Sprintf("%s: classifier with hidden widths %v (%s), %s", e.label, e.cfg.Hidden, e.cfg.Activation, e.state())
}

// MIMEBundle shows the summary as HTML and text.
func (e *NRE) MIMEBundle() map[string]any { return summaryBundle(e.label, e.String()) }

// String says what the NLE is: its flow, its dimensions and whether it is trained.
func (e *NLE) String() string {
	c := e.cfg
	return fmt.Sprintf("%s: %d transforms of %d×%d hidden units, %s", e.label, c.Transforms, c.Layers, c.Hidden, e.state())
}

// MIMEBundle shows the summary as HTML and text.
func (e *NLE) MIMEBundle() map[string]any { return summaryBundle(e.label, e.String()) }

// String says what the MNLE is: its discrete columns, its flow, its dimensions and whether it
// is trained.
func (e *MNLE) String() string {
	c := e.cfg
	return fmt.Sprintf("%s: %d discrete column(s), flow of %d transforms, %s", e.label, c.Discrete, c.Transforms, e.state())
}

// MIMEBundle shows the summary as HTML and text.
func (e *MNLE) MIMEBundle() map[string]any { return summaryBundle(e.label, e.String()) }

// state says the dimensions and whether the estimator is trained, and why it cannot be when
// its configuration is invalid (which Train reports only when called).
func (c *estimator) state() string {
	if c.cfgErr != nil {
		return fmt.Sprintf("%d parameters, not trained; its configuration is invalid, so Train will refuse: %v", c.prior.Dim(), c.cfgErr)
	}
	if !c.trained {
		return fmt.Sprintf("%d parameters, not trained", c.prior.Dim())
	}
	return fmt.Sprintf("%d parameters, %d data values, trained", c.prior.Dim(), c.xDim)
}

// String says what the posterior is, for which observation, and its acceptance rate so far.
func (p *NPEPosterior) String() string {
	s := fmt.Sprintf("%s posterior at x = %s, %d parameters", p.est.label, fmtVec(p.x), p.Dim())
	if p.err != nil {
		return s + ": " + p.err.Error()
	}
	return s + p.count.describe("flow")
}

// MIMEBundle shows the summary as HTML and text.
func (p *NPEPosterior) MIMEBundle() map[string]any {
	return summaryBundle(p.est.label+" posterior", p.String())
}

// String says what the posterior is, for which observation, and how it is sampled.
func (p *RatioPosterior) String() string {
	at := "x = " + fmtVec(p.x)
	if p.trials > 0 {
		at = fmt.Sprintf("%d trials of %d values (the first x = %s)", p.trials, len(p.x), fmtVec(p.x))
	}
	s := fmt.Sprintf("%s posterior at %s, %d parameters, unnormalized", p.label, at, p.Dim())
	if p.err != nil {
		return s + ": " + p.err.Error()
	}
	c := p.cfg
	switch c.Method {
	case SamplerGrid:
		s += fmt.Sprintf("; sampled exactly on a grid of %d points per parameter", c.GridPoints)
	case SamplerImportance:
		s += fmt.Sprintf("; sampled by importance resampling, %d prior draws per sample", c.Proposals)
		if ess := p.ESS(); !math.IsNaN(ess) {
			s += fmt.Sprintf(", last effective sample size %.4g", ess)
		}
	default:
		s += fmt.Sprintf("; sampled by slice MCMC, %d chains, %d burn-in sweeps, thinning %d", c.Chains, c.BurnIn, c.Thin)
	}
	return s
}

// MIMEBundle shows the summary as HTML and text.
func (p *RatioPosterior) MIMEBundle() map[string]any {
	return summaryBundle(p.label+" posterior", p.String())
}

// String says what the mixture is.
func (p *MixturePosterior) String() string {
	return fmt.Sprintf("equal-weight mixture of %d posteriors, %d parameters", len(p.Members), p.Dim())
}

// MIMEBundle shows the summary as HTML and text.
func (p *MixturePosterior) MIMEBundle() map[string]any {
	return summaryBundle("mixture posterior", p.String())
}

// summaryBundle shows a one-line summary s, whose first words repeat title, as HTML with the
// title in bold and as text.
func summaryBundle(title, s string) map[string]any {
	rest := strings.TrimPrefix(strings.TrimPrefix(s, title), ":")
	return map[string]any{
		"text/html":  "<div><b>" + html.EscapeString(title) + "</b>" + html.EscapeString(rest) + "</div>",
		"text/plain": s,
	}
}

// fmtVec formats an observation compactly: at most 6 values, 4 significant digits.
func fmtVec(x []float64) string {
	var parts []string
	for i, v := range x {
		if i == 6 {
			parts = append(parts, fmt.Sprintf("… (%d values)", len(x)))
			break
		}
		parts = append(parts, strconv.FormatFloat(v, 'g', 4, 64))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
