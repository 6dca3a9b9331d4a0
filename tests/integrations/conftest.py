"""Integration tests run real optional libraries; each module skips when its extra is missing."""
