"""A CRD version's openAPIV3Schema at work: structural checks of the schema itself (`structural`), and on
custom objects pruning (`pruning`), defaulting (`defaulting`) and validation (`validation`)."""
