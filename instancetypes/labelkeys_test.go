package instancetypes

import (
	"fmt"
	"testing"
)

func TestCheckLabelKeyRemembersOnlyValidKeysAndAtMostMax(t *testing.T) {
	for range 2 {
		if err := checkLabelKey("example.com/size-family"); err != nil {
			t.Fatalf("valid key refused: %v", err)
		}
		if err := checkLabelKey("example.com/bad key"); err == nil {
			t.Fatal("invalid key accepted")
		}
		if err := checkLabelKey("beta.kubernetes.io/arch"); err == nil {
			t.Fatal("deprecated key accepted")
		}
	}
	for i := range maxValidKeys + 100 {
		if err := checkLabelKey(fmt.Sprintf("example.com/key-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := validKeyCount.Load(); n > maxValidKeys {
		t.Fatalf("remembered %d keys, more than %d", n, maxValidKeys)
	}
	if err := checkLabelKey("example.com/bad key"); err == nil {
		t.Fatal("invalid key accepted once the set is full")
	}
}
