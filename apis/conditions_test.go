package apis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodeClaimConditionStatuses(t *testing.T) {
	nc := &NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	nc.Spec.Requirements = []NodeSelectorRequirementWithMinValues{}
	nc.Spec.NodeClassRef = &NodeClassReference{Group: AWSGroup, Kind: KindEC2NodeClass, Name: "default"}
	nc.Status.Conditions = []metav1.Condition{{Type: "Rebooting", Status: metav1.ConditionTrue}, {Type: "Initialized", Status: "Unknown"}}
	assert.NoError(t, nc.Validate())
	nc.Status.Conditions = []metav1.Condition{{Type: "Initialized", Status: metav1.ConditionTrue}, {Type: "Rebooting", Status: "true"}, {Status: metav1.ConditionFalse}}
	err := nc.Validate()
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), `status.conditions[1].status: "true" is not a condition status (use True, False or Unknown)`)
		assert.Contains(t, err.Error(), `status.conditions[2].type: required`)
	}
}
