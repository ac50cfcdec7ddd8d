package mcpclient

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// HeaderBinding is one x-mcp-header annotation of a tool's inputSchema
// (2026-07-28): the argument at Path is mirrored into header Mcp-Param-<Header>.
type HeaderBinding struct {
	Path   []string
	Header string
}

// tchar of RFC 9110 field-name token syntax.
var tokenRE = regexp.MustCompile("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$")

type schemaNode struct {
	Type       json.RawMessage       `json:"type"`
	XMCPHeader *string               `json:"x-mcp-header"`
	Properties map[string]schemaNode `json:"properties"`
}

// HeaderBindings collects the x-mcp-header annotations reachable through
// "properties" chains of an inputSchema. An invalid annotation is an error:
// the spec says such a tool must be excluded.
func HeaderBindings(inputSchema json.RawMessage) ([]HeaderBinding, error) {
	if len(inputSchema) == 0 {
		return nil, nil
	}
	var root schemaNode
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, err
	}
	var out []HeaderBinding
	seen := map[string]bool{}
	var walk func(n schemaNode, path []string) error
	walk = func(n schemaNode, path []string) error {
		for name, child := range n.Properties {
			p := append(append([]string{}, path...), name)
			if child.XMCPHeader != nil {
				h := *child.XMCPHeader
				if !tokenRE.MatchString(h) {
					return fmt.Errorf("x-mcp-header %q is not an HTTP token", h)
				}
				if seen[strings.ToLower(h)] {
					return fmt.Errorf("x-mcp-header %q is not unique", h)
				}
				var typ string
				json.Unmarshal(child.Type, &typ)
				if typ != "string" && typ != "integer" && typ != "boolean" {
					return fmt.Errorf("x-mcp-header %q on a %q property", h, typ)
				}
				seen[strings.ToLower(h)] = true
				out = append(out, HeaderBinding{Path: p, Header: h})
			}
			if err := walk(child, p); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// ParamHeaders returns the Mcp-Param-* headers for one call's arguments.
// Absent or null values produce no header.
func ParamHeaders(bindings []HeaderBinding, args json.RawMessage) map[string]string {
	var root any
	if json.Unmarshal(args, &root) != nil {
		return nil
	}
	out := map[string]string{}
	for _, b := range bindings {
		v := root
		for _, k := range b.Path {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[k]
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case bool:
			s = strconv.FormatBool(x)
		case float64:
			s = strconv.FormatInt(int64(x), 10)
		default:
			continue
		}
		out["Mcp-Param-"+b.Header] = EncodeHeaderValue(s)
	}
	return out
}
