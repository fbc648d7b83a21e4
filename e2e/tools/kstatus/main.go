// cmo-kstatus reads one Kubernetes object as JSON (a file named by the first argument, or stdin)
// and prints what the kstatus library (sigs.k8s.io/cli-utils/pkg/kstatus/status) computes for it,
// as one JSON line: {"status":"InProgress|Current|Failed|...","reason":"...","message":"..."}, the reason
// being that of the Reconciling or Stalled condition kstatus based its verdict on ("" for Current).
// The tests run it against ClusterMirror objects read from a real kube-apiserver: it is the same
// code Flux (kstatus) and the cli-utils based tools use to decide whether a resource is ready.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

func main() {
	in := io.Reader(os.Stdin)
	if len(os.Args) > 1 {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fail("cannot open %s: %v", os.Args[1], err)
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(in)
	if err != nil {
		fail("cannot read the object: %v", err)
	}
	// Unstructured's own decoder keeps integers int64 (metadata.generation), as the API server's do.
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		fail("the input is not a Kubernetes object in JSON (apiVersion, kind): %v", err)
	}
	res, err := status.Compute(obj)
	if err != nil {
		fail("kstatus could not compute the status: %v", err)
	}
	reason := ""
	if len(res.Conditions) > 0 {
		reason = res.Conditions[0].Reason
	}
	out, _ := json.Marshal(map[string]string{"status": res.Status.String(), "reason": reason, "message": res.Message})
	fmt.Println(string(out))
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "cmo-kstatus: "+format+"\n", args...)
	os.Exit(2)
}
