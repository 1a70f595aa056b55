package main

// adminCommands talk to a running server's admin API.
var adminCommands = []command{}
