package instancetypes

import (
	"errors"
	"strings"
	"testing"
)

// A catalog price past apis.MaxPricePerHour is refused, naming the type
// and offering: prices are bounded so that costs summed over nodes and
// hours stay finite.
func TestReadJSONRefusesAbsurdPrices(t *testing.T) {
	for price, want := range map[string]string{
		"1e300":      `instanceTypes[0] (m5.large): offerings[0]: price: 1e+300 is more than karpsim reads ($1e+06 an hour)`,
		"1000000.01": `offerings[0]: price: 1.00000001e+06 is more than karpsim reads ($1e+06 an hour)`,
	} {
		_, err := ReadJSON(strings.NewReader(strings.Replace(minimal, `"price": 0.03`, `"price": `+price, 1)), "catalog.json")
		if !errors.Is(err, ErrInvalidCatalog) || !strings.Contains(err.Error(), want) {
			t.Errorf("price %s: %v, want ErrInvalidCatalog containing %q", price, err, want)
		}
	}
	if _, err := ReadJSON(strings.NewReader(strings.Replace(minimal, `"price": 0.03`, `"price": 1000000`, 1)), "catalog.json"); err != nil {
		t.Errorf("price 1000000: %v", err)
	}
}
