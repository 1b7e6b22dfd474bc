package mcp

// SetListChangedHook sets a function called after each notifications/tools/list_changed a
// Client recorded, with the server's name; nil removes it. Tests only.
func SetListChangedHook(f func(server string)) { testHookListChanged = f }
