package disruption

import (
	"bytes"
	"context"
	"fmt"
	"time"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Dump reads back what Load put in the API server, with the defaults the
// CRDs gave and the conditions Karpenter's controllers wrote, as one YAML
// stream: what `kubectl get ... -o yaml` gives `karpsim disrupt -f`.
func (u *Upstream) Dump() ([]byte, error) {
	return dump(u.ctx, u.client)
}

func dump(ctx context.Context, c client.Client) ([]byte, error) {
	var buf bytes.Buffer
	write := func(gvk schema.GroupVersionKind, obj client.Object) error {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		obj.SetManagedFields(nil)
		data, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		buf.WriteString("---\n")
		buf.Write(data)
		return nil
	}
	lists := []struct {
		gvk  schema.GroupVersionKind
		list client.ObjectList
	}{
		{schema.GroupVersionKind{Group: "karpenter.k8s.aws", Version: "v1", Kind: "EC2NodeClass"}, &awsv1.EC2NodeClassList{}},
		{schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodePool"}, &karpv1.NodePoolList{}},
		{schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodeClaim"}, &karpv1.NodeClaimList{}},
		{schema.GroupVersionKind{Version: "v1", Kind: "Node"}, &corev1.NodeList{}},
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, &corev1.PodList{}},
		{schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"}, &policyv1.PodDisruptionBudgetList{}},
	}
	for _, l := range lists {
		if err := c.List(ctx, l.list); err != nil {
			return nil, fmt.Errorf("listing %s: %w", l.gvk.Kind, err)
		}
		var err error
		switch items := l.list.(type) {
		case *awsv1.EC2NodeClassList:
			for i := range items.Items {
				err = firstErr(err, write(l.gvk, &items.Items[i]))
			}
		case *karpv1.NodePoolList:
			for i := range items.Items {
				err = firstErr(err, write(l.gvk, &items.Items[i]))
			}
		case *karpv1.NodeClaimList:
			for i := range items.Items {
				err = firstErr(err, write(l.gvk, &items.Items[i]))
			}
		case *corev1.NodeList:
			for i := range items.Items {
				err = firstErr(err, write(l.gvk, &items.Items[i]))
			}
		case *corev1.PodList:
			for i := range items.Items {
				err = firstErr(err, write(l.gvk, &items.Items[i]))
			}
		case *policyv1.PodDisruptionBudgetList:
			for i := range items.Items {
				err = firstErr(err, write(l.gvk, &items.Items[i]))
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// Karpsim decides on the YAML as `karpsim disrupt -f FILE --catalog
// CATALOG --at NOW` does: the loader, the disruption snapshot and
// consolidation.Evaluate.
func Karpsim(manifestYAML []byte, catalog instancetypes.Catalog, now time.Time) ([]Command, error) {
	return KarpsimWith(manifestYAML, catalog, now, consolidation.Options{})
}

// KarpsimWith is Karpsim with the evaluation's options (its scheduling
// options' default spread comes from the cluster).
func KarpsimWith(manifestYAML []byte, catalog instancetypes.Catalog, now time.Time, evalOpts consolidation.Options) ([]Command, error) {
	set, err := manifests.Decode("cluster.yaml", manifestYAML)
	if err != nil {
		return nil, err
	}
	opts := snapshot.Options{Catalog: func(*apis.EC2NodeClass) (instancetypes.Catalog, error) { return catalog, nil }}
	d, err := snapshot.ForDisruption(set, opts, now)
	if err != nil {
		return nil, err
	}
	evalOpts.Scheduling = scheduling.Options{DefaultSpread: d.DefaultSpread}
	decision := consolidation.Evaluate(d.Cluster, now, evalOpts)
	var out []Command
	for _, c := range decision.Commands {
		cmd := Command{Method: c.Method, Delete: c.Delete}
		for _, r := range c.Replacements {
			cmd.Replacements = append(cmd.Replacements, replacement(r.NodePool, r.InstanceTypeOptions))
		}
		out = append(out, cmd.normalize())
	}
	return sortCommands(out), nil
}
