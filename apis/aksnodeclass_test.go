package apis

import (
	"testing"
)

func TestAKSNodeClassDeepCopy(t *testing.T) {
	checkDeepCopy(t, (*AKSNodeClass).DeepCopy)
}
