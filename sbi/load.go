package sbi

import (
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// MustLoadFile is LoadFile for notebook cells: it panics with LoadFile's error.
func MustLoadFile(path string) Estimator { return safe.Must(LoadFile(path)) }

// MustLoadNPEFile is LoadNPEFile for notebook cells: it panics with LoadNPEFile's error.
func MustLoadNPEFile(path string, prior dist.Distribution) *NPE {
	return safe.Must(LoadNPEFile(path, prior))
}

// MustLoadNREFile is LoadNREFile for notebook cells: it panics with LoadNREFile's error.
func MustLoadNREFile(path string, prior dist.Distribution) *NRE {
	return safe.Must(LoadNREFile(path, prior))
}

// MustLoadNLEFile is LoadNLEFile for notebook cells: it panics with LoadNLEFile's error.
func MustLoadNLEFile(path string, prior dist.Distribution) *NLE {
	return safe.Must(LoadNLEFile(path, prior))
}

// MustLoadMNLEFile is LoadMNLEFile for notebook cells: it panics with LoadMNLEFile's error.
func MustLoadMNLEFile(path string, prior dist.Distribution) *MNLE {
	return safe.Must(LoadMNLEFile(path, prior))
}

// MustLoadNPEEnsembleFile is LoadNPEEnsembleFile for notebook cells: it panics with its error.
func MustLoadNPEEnsembleFile(path string, prior dist.Distribution) *NPEEnsemble {
	return safe.Must(LoadNPEEnsembleFile(path, prior))
}

// MustLoadNREEnsembleFile is LoadNREEnsembleFile for notebook cells: it panics with its error.
func MustLoadNREEnsembleFile(path string, prior dist.Distribution) *NREEnsemble {
	return safe.Must(LoadNREEnsembleFile(path, prior))
}

// MustSaveFile is SaveFile for notebook cells: it panics with SaveFile's error.
func (e *NPE) MustSaveFile(path string) { mustDo(e.SaveFile(path)) }

// MustSaveFile is SaveFile for notebook cells: it panics with SaveFile's error.
func (e *NRE) MustSaveFile(path string) { mustDo(e.SaveFile(path)) }

// MustSaveFile is SaveFile for notebook cells: it panics with SaveFile's error.
func (e *NLE) MustSaveFile(path string) { mustDo(e.SaveFile(path)) }

// MustSaveFile is SaveFile for notebook cells: it panics with SaveFile's error.
func (e *MNLE) MustSaveFile(path string) { mustDo(e.SaveFile(path)) }

// MustSaveFile is SaveFile for notebook cells: it panics with SaveFile's error.
func (e *NPEEnsemble) MustSaveFile(path string) { mustDo(e.SaveFile(path)) }

// MustSaveFile is SaveFile for notebook cells: it panics with SaveFile's error.
func (e *NREEnsemble) MustSaveFile(path string) { mustDo(e.SaveFile(path)) }

// mustDo panics with err itself when it is not nil.
func mustDo(err error) {
	if err != nil {
		panic(err)
	}
}
