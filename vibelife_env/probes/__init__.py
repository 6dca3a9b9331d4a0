"""The probe library: reusable scenario motifs families compose (see :mod:`.base`)."""
