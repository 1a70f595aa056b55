package main

// storeCommands work on a store directly (no server running on it).
var storeCommands = []command{}
