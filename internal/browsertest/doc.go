// Package browsertest runs the browser tests of the web pages (the
// portal's and the console's) in one real headless Chromium per test
// binary, driven by chromedp: Start in TestMain, then a Tab per test.
// Without Chromium a test skips with the reason, except where the
// environment variable CI is set: there it fails, so that CI never passes
// a browser test it did not run.
package browsertest
