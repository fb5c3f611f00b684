package calib

import (
	"strings"
	"testing"
)

// TestRegularizerStudyNamesConfidence: the study's table names the intervals' confidence as
// it was asked for, a 99.9% interval not as "100 %".
func TestRegularizerStudyNamesConfidence(t *testing.T) {
	for _, c := range []struct {
		conf float64
		want string
	}{
		{0.95, "[95% interval]"},
		{0.9, "[90% interval]"},
		{0.995, "[99.5% interval]"},
		{0.999, "[99.9% interval]"},
		{0.9999, "[99.99% interval]"},
	} {
		s := &RegularizerStudy{Name: "kccsd", Confidence: c.conf, TestPairs: 400}
		for _, kind := range []string{"text/plain", "text/html"} {
			if got, _ := s.MIMEBundle()[kind].(string); !strings.Contains(got, c.want) {
				t.Errorf("confidence %v: %s %q, want it to name the %q", c.conf, kind, got, c.want)
			}
		}
	}
}
