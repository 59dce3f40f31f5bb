"""The actors: apiserver, scheduler, controllers, kubelet."""
