package workload

import "errors"

// Set parses s into l (ParseLength), so that a *Length can be the target
// of a command-line flag (with String and Type).
func (l *Length) Set(s string) error {
	v, err := ParseLength(s)
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Type names a length's syntax in command-line help.
func (l *Length) Type() string { return "length" }

// Validate checks the settings a user gives: no negative output length.
func (o ImportOptions) Validate() error {
	if o.OutputLen < 0 {
		return errors.New("the output length must be >= 0")
	}
	return nil
}

// Validate checks the settings a user gives: the count and the length
// filters are not negative.
func (o ShareGPTOptions) Validate() error {
	if o.Num < 0 || o.MinLen < 0 || o.MaxInputLen < 0 || o.MaxTotalLen < 0 {
		return errors.New("the count and the length filters must be >= 0")
	}
	return o.ImportOptions.Validate()
}
