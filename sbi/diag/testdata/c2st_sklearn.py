"""Reference accuracies for TestC2STAgainstScikitLearn.

Runs the classifier two-sample test the way sbibm's metrics/c2st.py defines it (z-score both
sets by the first set's mean and standard deviation, scikit-learn MLPClassifier with two hidden
layers of 10*dim ReLU units, adam, max_iter 10000, random_state 1; 5-fold shuffled KFold with
the same seed; mean accuracy) on the files that `GOSBI_WRITE_C2ST=DIR go test -run
TestC2STAgainstScikitLearn ./sbi/diag` writes.

Usage: /usr/bin/python3 c2st_sklearn.py DIR
"""
import sys

import numpy as np
from sklearn.model_selection import KFold, cross_val_score
from sklearn.neural_network import MLPClassifier


def c2st(x, y, seed=1, folds=5):
    mean, std = x.mean(axis=0), x.std(axis=0)
    x, y = (x - mean) / std, (y - mean) / std
    dim = x.shape[1]
    clf = MLPClassifier(activation="relu", hidden_layer_sizes=(10 * dim, 10 * dim),
                        max_iter=10000, solver="adam", random_state=seed)
    data = np.concatenate([x, y])
    target = np.concatenate([np.zeros(len(x)), np.ones(len(y))])
    cv = KFold(n_splits=folds, shuffle=True, random_state=seed)
    return cross_val_score(clf, data, target, cv=cv, scoring="accuracy").mean()


for name in ("shift", "scale"):
    x = np.loadtxt(f"{sys.argv[1]}/{name}_x.csv", delimiter=",")
    y = np.loadtxt(f"{sys.argv[1]}/{name}_y.csv", delimiter=",")
    print(f"{name} {c2st(x, y):.4f}")
