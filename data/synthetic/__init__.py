"""The synthetic release (twenty synthetic cases, not BedsideBench data), shipped inside the
package for `bedside-bench demo`; README.md here says what it is."""
