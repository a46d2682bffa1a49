"""The reviewer's desk without Qt: the workbench of cases, the open case's editor and its
edits, and boxes.
"""
