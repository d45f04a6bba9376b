# nothing but comments

