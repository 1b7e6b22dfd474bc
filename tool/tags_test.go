package tool_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/tool"
)

// newErr runs tool.New and returns its panic as an error (nil when it did not panic).
func newErr[In any](fn func(context.Context, In) (string, error)) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	tool.New("t", "a tool", fn)
	return nil
}

func TestNewRefusesSilentTags(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"misspelled key", newErr(func(context.Context, struct {
			Days int `json:"days" jsonschema:"minimun=1"`
		}) (string, error) {
			return "", nil
		}), `field "Days": unknown jsonschema tag key "minimun"`},
		{"bare word", newErr(func(context.Context, struct {
			Days int `json:"days" jsonschema:"omitempty"`
		}) (string, error) {
			return "", nil
		}), `field "Days": unknown jsonschema tag key "omitempty"`},
		{"description cut by a comma", newErr(func(context.Context, struct {
			Query string `json:"query" jsonschema:"description=Words to look for: names, numbers"`
		}) (string, error) {
			return "", nil
		}), `field "Query": the jsonschema description is cut at a comma (" numbers" is not a tag key): use a jsonschema_description tag, or escape the comma as \,`},
		{"enum value with a comma", newErr(func(context.Context, struct {
			Unit string `json:"unit" jsonschema:"enum=a,b"`
		}) (string, error) {
			return "", nil
		}), `field "Unit": unknown jsonschema tag key "b"`},
		{"nested field", newErr(func(context.Context, struct {
			Home struct {
				Street string `json:"street" jsonschema:"maxlength=9"`
			} `json:"home"`
		}) (string, error) {
			return "", nil
		}), `field "Home.Street": unknown jsonschema tag key "maxlength"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
				t.Errorf("tool.New error = %v, want it to contain %q", tt.err, tt.want)
			}
		})
	}
}

func TestNewAcceptsKnownTags(t *testing.T) {
	err := newErr(func(context.Context, struct {
		City  string   `json:"city" jsonschema:"title=City,description=a city\\, in Chinese,minLength=1,maxLength=20,pattern=^.+$,example=北京,default=北京"`
		Desc  string   `json:"desc" jsonschema_description:"free text, with commas"`
		Days  int      `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,exclusiveMaximum=8,multipleOf=1,default=3,enum=1,enum=3"`
		Tags  []string `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=3,uniqueItems=true"`
		Ok    bool     `json:"ok,omitempty" jsonschema:"default=true"`
		Mail  string   `json:"mail,omitempty" jsonschema:"format=email,required"`
		Nick  string   `json:"nick" jsonschema:"nullable"`
		Skip  string   `json:"skip" jsonschema:"-"`
		Typed any      `json:"typed,omitempty" jsonschema:"anyof_type=string;integer"`
	}) (string, error) {
		return "", nil
	})
	if err != nil {
		t.Errorf("tool.New refused known tags: %v", err)
	}
}
