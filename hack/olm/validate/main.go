// olm-validate: runs operator-registry's bundle format check and operator-framework/api's own bundle validators
// (what operator-sdk's `bundle validate --select-optional suite=operatorframework` runs) on one bundle directory and prints what they
// report as JSON, so that test/integration/olm/bundle-agreement.test.ts can compare them with helm-operator's
// `bundle validate`. Built by hack/olm/build-validate.sh into a cache outside the repository; a test tool only.
//
// Usage: olm-validate DIR   (DIR holds manifests/ and metadata/)
// Output: {"formatErrors": [...], "loadError": "...", "findings": [{"validator", "level", "type", "field", "detail"}]}; exit 0 when it
// could run (whatever it found), 2 on a usage error.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
	apierrors "github.com/operator-framework/api/pkg/validation/errors"
	registrybundle "github.com/operator-framework/operator-registry/pkg/lib/bundle"
	"github.com/sirupsen/logrus"
)

type finding struct {
	Validator string `json:"validator"`
	Level     string `json:"level"`
	Type      string `json:"type"`
	Field     string `json:"field,omitempty"`
	Detail    string `json:"detail"`
}

type report struct {
	// FormatErrors: operator-registry's bundle format check (directories, metadata/annotations.yaml), which
	// operator-sdk's `bundle validate` runs first.
	FormatErrors []string  `json:"formatErrors"`
	LoadError    string    `json:"loadError,omitempty"`
	Findings     []finding `json:"findings"`
}

func collect(validator string, results []apierrors.ManifestResult, out *report) {
	for _, r := range results {
		for _, e := range append(append([]apierrors.Error{}, r.Errors...), r.Warnings...) {
			out.Findings = append(out.Findings, finding{
				Validator: validator,
				Level:     string(e.Level),
				Type:      string(e.Type),
				Field:     e.Field,
				Detail:    e.Detail,
			})
		}
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: olm-validate DIR")
		os.Exit(2)
	}
	out := report{FormatErrors: []string{}, Findings: []finding{}}
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	if err := registrybundle.NewImageValidator(nil, logrus.NewEntry(quiet)).ValidateBundleFormat(os.Args[1]); err != nil {
		var verr registrybundle.ValidationError
		if errors.As(err, &verr) {
			for _, e := range verr.Errors {
				out.FormatErrors = append(out.FormatErrors, e.Error())
			}
		} else {
			out.FormatErrors = append(out.FormatErrors, err.Error())
		}
	}
	// The bundle's root, as operator-registry unpacks an image: the loader reads metadata/annotations.yaml (package,
	// channels) and the manifests/ folder that holds the CSV.
	bundle, err := manifests.GetBundleFromDir(os.Args[1])
	if err != nil {
		out.LoadError = err.Error()
	}
	if bundle != nil && bundle.CSV != nil {
		objs := bundle.ObjectsToValidate()
		// operator-sdk's `bundle validate`: the default validators on the bundle's objects...
		collect("default", validation.DefaultBundleValidators.Validate(objs...), &out)
		// ...and, with --select-optional suite=operatorframework, the operatorhub validator on the same objects plus
		// every manifest and the optional values (none).
		optional := append([]interface{}{}, objs...)
		for _, o := range bundle.Objects {
			optional = append(optional, o)
		}
		optional = append(optional, map[string]string{})
		collect("operatorhub", validation.OperatorHubValidator.Validate(optional...), &out)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
