// Package sbi is gosbi's library for simulation-based inference: neural posterior and ratio
// estimators, their training loop and posteriors, the parallel simulation runner, and the hooks
// through which a host (a notebook worker, a terminal) sees progress and cancels long calls.
//
// Sub-packages hold the rest: sbi/dist (distributions), sbi/task (simulators and benchmark
// tasks), sbi/nn (the reverse-mode engine), sbi/calib (calibration methods) and sbi/diag
// (diagnostics). The library knows nothing of notebooks: results offer a MIMEBundle, and
// progress and cancellation go through the hooks in this package.
package sbi
