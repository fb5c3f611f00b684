// Package viz draws the figures of simulation-based inference on gonum.org/v1/plot: coverage
// curves, corner plots of posterior samples, marginals of several posteriors overlaid,
// conditional pair plots, SBC rank histograms and ECDF differences with simultaneous bands,
// the recovery view, the local diagnostics at an observation (L-C2ST, misspecification,
// predictive checks), MCMC traces and rank plots, training curves that update live, 2-D
// densities with HPD contours, metric-versus-budget sweeps and grids of small multiples. Each
// plot draws the arrays of the diag result it is given, so that figure and verdict agree.
//
// Every constructor returns a *Plot, which renders on demand: PNG and SVG bytes, Save to a file,
// and MIMEBundle, so that a notebook shows it inline when it is the last expression of a cell;
// Show displays it at once through package display. A Loss redraws itself in place while
// training runs. Report is the one constructor of another kind: it returns a diag calibration
// report together with its figures, for display (package diag does not draw).
// Plots use a sans-serif font and the Okabe–Ito palette, which stays distinguishable under the
// common forms of colour blindness.
package viz
