package main

import (
	"strings"
	"testing"
)

// TestCheckArgs: the group, the number of seeds and stray arguments are checked before the
// first estimator is trained, with an error naming what is wrong.
func TestCheckArgs(t *testing.T) {
	for _, tc := range []struct {
		seeds   int
		group   string
		args    []string
		wantErr string
	}{
		{10, "default", nil, ""},
		{1, "embedding", nil, ""},
		{0, "default", nil, "-seeds 0"},
		{10, "ensembles", nil, `unknown group "ensembles"`},
		{10, "default", []string{"embedding"}, `unexpected arguments ["embedding"]`},
	} {
		g, err := checkArgs(tc.seeds, tc.group, tc.args)
		switch {
		case tc.wantErr == "" && (err != nil || len(g.estimators) == 0):
			t.Errorf("checkArgs(%d, %q, %q) = %d estimators, %v; want a group", tc.seeds, tc.group, tc.args, len(g.estimators), err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("checkArgs(%d, %q, %q) = %v, want an error naming %q", tc.seeds, tc.group, tc.args, err, tc.wantErr)
		}
	}
}
