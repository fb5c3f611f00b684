package certify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestExampleSpecTrainsOn1024 holds examples/certify/tc-slcp-nre-seeds.json to what the README
// says of it: NRE on tc_slcp at 1,024 training simulations. The budget fields of the spec are
// mapped to Config as `gosbi certify` maps them (certify_cmd.go), and the plan is Certify's.
func TestExampleSpecTrainsOn1024(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "certify", "tc-slcp-nre-seeds.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Simulations      int `json:"simulations"`
		Test             int `json:"test"`
		Check            int `json:"check"`
		Conformal        int `json:"conformal"`
		MoreSimulations  int `json:"more_simulations"`
		LocalSimulations int `json:"local_simulations"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Simulations: s.Simulations, TestSimulations: s.Test, CheckSimulations: s.Check,
		ConformalSimulations: s.Conformal, MoreSimulations: s.MoreSimulations, LocalSimulations: s.LocalSimulations}
	b, _, err := plan(cfg.withDefaults(), false, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.Train != 1024 || b.More != 0 {
		t.Errorf("budget %s; want 1024 training simulations and no reserve", b)
	}
}
