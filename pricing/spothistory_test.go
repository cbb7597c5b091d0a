package pricing

import (
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func spotPriceStrings(prices []SpotPrice) []string {
	lines := make([]string, len(prices))
	for i, p := range prices {
		lines[i] = p.String()
	}
	return lines
}

func mustParseFixture(t testing.TB) []SpotPrice {
	t.Helper()
	f, err := os.Open("testdata/spot-price-history.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prices, err := ParseSpotPriceHistory(f, "spot-price-history.json")
	if err != nil {
		t.Fatal(err)
	}
	return prices
}

func TestParseSpotPriceHistoryFixture(t *testing.T) {
	got := mustParseFixture(t)
	// Skipped: Windows and SUSE lines (m5.large/us-east-1d and
	// m5.xlarge/us-east-1b have no Linux price at all), older duplicates, and
	// the lower of two prices sharing the latest timestamp (m5.xlarge/us-east-1a).
	want := []string{
		"c5.large us-east-1b 0.0351 2024-05-01T11:59:59Z",
		"m5.large us-east-1a 0.0384 2024-05-01T12:00:00Z",
		"m5.large us-east-1b 0.0369 2024-05-01T09:15:07Z",
		"m5.large us-east-1c 0.0397 2024-05-01T10:45:12Z",
		"m5.xlarge us-east-1a 0.0771 2024-05-01T11:02:33Z",
		"t3.micro us-east-1d 0.0031 2024-05-01T07:30:00Z",
		"t3.micro us-west-2a 0.0032 2024-05-01T12:00:00Z",
	}
	if lines := spotPriceStrings(got); !slices.Equal(lines, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// entryJSON builds a one-entry history, replacing fields of a valid entry.
func entryJSON(replace ...string) string {
	fields := map[string]string{
		"AvailabilityZone":   `"us-east-1a"`,
		"InstanceType":       `"m5.large"`,
		"ProductDescription": `"Linux/UNIX"`,
		"SpotPrice":          `"0.038400"`,
		"Timestamp":          `"2024-05-01T12:00:00+00:00"`,
	}
	for i := 0; i+1 < len(replace); i += 2 {
		if replace[i+1] == "" {
			delete(fields, replace[i])
		} else {
			fields[replace[i]] = replace[i+1]
		}
	}
	var parts []string
	for _, k := range []string{"AvailabilityZone", "InstanceType", "ProductDescription", "SpotPrice", "Timestamp"} {
		if v, ok := fields[k]; ok {
			parts = append(parts, `"`+k+`": `+v)
		}
	}
	return `{"SpotPriceHistory": [` + entryOK + `, {` + strings.Join(parts, ", ") + `}]}`
}

const entryOK = `{"AvailabilityZone": "us-east-1b", "InstanceType": "c5.large", ` +
	`"ProductDescription": "Linux/UNIX", "SpotPrice": "0.0338", "Timestamp": "2024-05-01T08:00:00Z"}`

func TestParseSpotPriceHistoryErrors(t *testing.T) {
	tests := []struct {
		name, input, want string
		sentinel          error
	}{
		{"empty input", ``, `h.json: malformed JSON: empty input`, ErrMalformedJSON},
		{"truncated", `{"SpotPriceHistory": [`, `h.json: malformed JSON: unexpected end of input`, ErrMalformedJSON},
		{"syntax", `{"SpotPriceHistory": [}`, `h.json: malformed JSON near byte 23: invalid character '}' looking for beginning of value`, ErrMalformedJSON},
		{"not an object", `[1, 2]`, `h.json: malformed JSON: want an object, got array`, ErrMalformedJSON},
		{"history not an array", `{"SpotPriceHistory": "x"}`, `h.json: field SpotPriceHistory: malformed JSON: want an array, got string`, ErrMalformedJSON},
		{"history missing", `{"NextToken": ""}`, `h.json: field SpotPriceHistory: missing`, ErrMissingField},
		{"history null", `{"SpotPriceHistory": null}`, `h.json: field SpotPriceHistory: missing`, ErrMissingField},
		{"trailing value", `{"SpotPriceHistory": []} {}`, `h.json: malformed JSON: more data after the value ending at byte 24`, ErrMalformedJSON},
		{"trailing garbage", `{"SpotPriceHistory": []} x`, `h.json: malformed JSON near byte 25: invalid character 'x' looking for beginning of value`, ErrMalformedJSON},
		{"entry not an object", `{"SpotPriceHistory": [` + entryOK + `, 7]}`, `h.json: entry 1: malformed JSON: want an object, got number`, ErrMalformedJSON},
		{"price a number", entryJSON("SpotPrice", `0.0384`), `h.json: entry 1: field SpotPrice: malformed JSON: want a string, got number`, ErrMalformedJSON},
		{"zone missing", entryJSON("AvailabilityZone", ""), `h.json: entry 1: field AvailabilityZone: missing`, ErrMissingField},
		{"type empty", entryJSON("InstanceType", `""`), `h.json: entry 1: field InstanceType: missing`, ErrMissingField},
		{"description null", entryJSON("ProductDescription", `null`), `h.json: entry 1: field ProductDescription: missing`, ErrMissingField},
		{"timestamp missing", entryJSON("Timestamp", ""), `h.json: entry 1: field Timestamp: missing`, ErrMissingField},
		{"price not a number", entryJSON("SpotPrice", `"abc"`), `h.json: entry 1: field SpotPrice: invalid price "abc"`, ErrInvalidPrice},
		{"price negative", entryJSON("SpotPrice", `"-0.1"`), `h.json: entry 1: field SpotPrice: invalid price "-0.1"`, ErrInvalidPrice},
		{"price NaN", entryJSON("SpotPrice", `"NaN"`), `h.json: entry 1: field SpotPrice: invalid price "NaN"`, ErrInvalidPrice},
		{"price infinite", entryJSON("SpotPrice", `"+Inf"`), `h.json: entry 1: field SpotPrice: invalid price "+Inf"`, ErrInvalidPrice},
		{"timestamp no zone", entryJSON("Timestamp", `"2024-05-01T12:00:00"`),
			`h.json: entry 1: field Timestamp: invalid timestamp "2024-05-01T12:00:00" (want RFC 3339, e.g. 2024-05-01T12:00:00+00:00)`, ErrInvalidTimestamp},
		{"bad Windows entry still an error", entryJSON("ProductDescription", `"Windows"`, "SpotPrice", `"n/a"`),
			`h.json: entry 1: field SpotPrice: invalid price "n/a"`, ErrInvalidPrice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSpotPriceHistory(strings.NewReader(tt.input), "h.json")
			if err == nil {
				t.Fatalf("got %v, want error %q", got, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("error %q does not wrap %q", err, tt.sentinel)
			}
			var perr *ParseError
			if !errors.As(err, &perr) || perr.Name != "h.json" {
				t.Errorf("error %#v is not a *ParseError named h.json", err)
			}
		})
	}
}

func TestParseSpotPriceHistoryReadError(t *testing.T) {
	readErr := errors.New("disk on fire")
	_, err := ParseSpotPriceHistory(iotest.ErrReader(readErr), "h.json")
	if !errors.Is(err, readErr) || err.Error() != "h.json: disk on fire" {
		t.Errorf("got %v, want h.json: disk on fire wrapping the reader's error", err)
	}
}

func TestParseSpotPriceHistoryValid(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
	}{
		{"empty history", `{"SpotPriceHistory": []}`, []string{}},
		{"only Windows", entryJSON("ProductDescription", `"Windows"`), []string{"c5.large us-east-1b 0.0338 2024-05-01T08:00:00Z"}},
		{"extra fields ignored", `{"SpotPriceHistory": [{"AvailabilityZone": "z", "InstanceType": "t", ` +
			`"ProductDescription": "Linux/UNIX", "SpotPrice": "1", "Timestamp": "2024-05-01T00:00:00Z", "Extra": [1]}], "NextToken": "abc"}`,
			[]string{"t z 1 2024-05-01T00:00:00Z"}},
		{"zero price", entryJSON("SpotPrice", `"0"`), []string{
			"c5.large us-east-1b 0.0338 2024-05-01T08:00:00Z", "m5.large us-east-1a 0 2024-05-01T12:00:00Z"}},
		{"same time, higher price wins in either order", `{"SpotPriceHistory": [` +
			`{"AvailabilityZone": "z", "InstanceType": "t", "ProductDescription": "Linux/UNIX", "SpotPrice": "2", "Timestamp": "2024-05-01T00:00:00Z"},` +
			`{"AvailabilityZone": "z", "InstanceType": "t", "ProductDescription": "Linux/UNIX (Amazon VPC)", "SpotPrice": "3", "Timestamp": "2024-05-01T00:00:00Z"},` +
			`{"AvailabilityZone": "z", "InstanceType": "t", "ProductDescription": "Linux/UNIX", "SpotPrice": "1", "Timestamp": "2024-05-01T00:00:00Z"}]}`,
			[]string{"t z 3 2024-05-01T00:00:00Z"}},
		{"same instant, other offsets", `{"SpotPriceHistory": [` +
			`{"AvailabilityZone": "z", "InstanceType": "t", "ProductDescription": "Linux/UNIX", "SpotPrice": "2", "Timestamp": "2024-05-01T02:00:00+02:00"},` +
			`{"AvailabilityZone": "z", "InstanceType": "t", "ProductDescription": "Linux/UNIX", "SpotPrice": "1", "Timestamp": "2024-05-01T00:00:00Z"}]}`,
			[]string{"t z 2 2024-05-01T00:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSpotPriceHistory(strings.NewReader(tt.input), "h.json")
			if err != nil {
				t.Fatal(err)
			}
			if lines := spotPriceStrings(got); !slices.Equal(lines, tt.want) {
				t.Errorf("got %q, want %q", lines, tt.want)
			}
		})
	}
}

func FuzzParseSpotPriceHistory(f *testing.F) {
	fixture, err := os.ReadFile("testdata/spot-price-history.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(fixture))
	f.Add(entryJSON("SpotPrice", `"1e309"`))
	f.Add(entryJSON("Timestamp", `"2024-13-01T00:00:00Z"`))
	f.Add(`{"SpotPriceHistory": [null, {}, [], "x"]}`)
	f.Add(`{"spotpricehistory": []}`)
	f.Fuzz(func(t *testing.T, input string) {
		prices, err := ParseSpotPriceHistory(strings.NewReader(input), "fuzz.json")
		if err != nil {
			if prices != nil || !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Fatalf("error %q with prices %v", err, prices)
			}
			return
		}
		for i, p := range prices {
			if p.InstanceType == "" || p.Zone == "" || !(p.Price >= 0) || math.IsInf(p.Price, 1) {
				t.Fatalf("invalid price %+v", p)
			}
			if i > 0 && compareSpotPrice(prices[i-1], p) >= 0 {
				t.Fatalf("not sorted or not unique: %v then %v", prices[i-1], p)
			}
		}
	})
}
